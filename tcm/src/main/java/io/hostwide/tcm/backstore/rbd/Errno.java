package io.hostwide.tcm.backstore.rbd;

import io.hostwide.tcm.spi.BackstoreStatusException;
import io.hostwide.tcm.spi.SenseReason;

import java.io.IOException;

/**
 * librados/librbd's negated errno returns (Linux numbers; the same on x86-64 and aarch64), named, and what each
 * means for a SCSI command. The mapping follows tcmu-runner's RBD handler: a timed-out operation is BUSY (the
 * initiator retries, and the cluster may be back by then); so is a client fenced off the image (ESHUTDOWN: blocklisted
 * after another gateway broke its lock; EROFS: it lost the exclusive lock), while the backstore reopens the image
 * with a new client in the background; the rest is a medium error whose cause goes to the data-path log.
 */
public final class Errno {
    private Errno() {}

    public static final int EPERM = 1;
    public static final int ENOENT = 2;
    public static final int EIO = 5;
    public static final int ENXIO = 6;
    public static final int EAGAIN = 11;
    public static final int ENOMEM = 12;
    public static final int EACCES = 13;
    public static final int EBUSY = 16;
    public static final int EEXIST = 17;
    public static final int EINVAL = 22;
    public static final int EFBIG = 27;
    public static final int ENOSPC = 28;
    public static final int EROFS = 30;
    public static final int ERANGE = 34;
    public static final int EILSEQ = 84;
    public static final int EOPNOTSUPP = 95;
    public static final int ENOTCONN = 107;
    /** Also Ceph's EBLOCKLISTED: this client was blocklisted by the OSDs. */
    public static final int ESHUTDOWN = 108;
    public static final int ETIMEDOUT = 110;
    public static final int EDQUOT = 122;
    public static final int ECANCELED = 125;

    /** "ETIMEDOUT" for 110 or -110; "errno N" for numbers without a name here. */
    public static String name(long errno) {
        int e = (int) Math.abs(errno);
        return switch (e) {
            case EPERM -> "EPERM";
            case ENOENT -> "ENOENT";
            case EIO -> "EIO";
            case ENXIO -> "ENXIO";
            case EAGAIN -> "EAGAIN";
            case ENOMEM -> "ENOMEM";
            case EACCES -> "EACCES";
            case EBUSY -> "EBUSY";
            case EEXIST -> "EEXIST";
            case EINVAL -> "EINVAL";
            case EFBIG -> "EFBIG";
            case ENOSPC -> "ENOSPC";
            case EROFS -> "EROFS";
            case ERANGE -> "ERANGE";
            case EILSEQ -> "EILSEQ";
            case EOPNOTSUPP -> "EOPNOTSUPP";
            case ENOTCONN -> "ENOTCONN";
            case ESHUTDOWN -> "ESHUTDOWN (blocklisted)";
            case ETIMEDOUT -> "ETIMEDOUT";
            case EDQUOT -> "EDQUOT";
            case ECANCELED -> "ECANCELED";
            default -> "errno " + e;
        };
    }

    /**
     * The exception for a failed data-path operation ({@code ret} negative): a {@link BackstoreStatusException}
     * where the answer is not a medium error, else a plain IOException (MEDIUM ERROR / WRITE ERROR by the handler).
     */
    public static IOException dataPathError(String what, long ret) {
        String message = what + " failed: " + name(ret);
        return switch ((int) -ret) {
            case ETIMEDOUT, ESHUTDOWN, EROFS -> new BackstoreStatusException(SenseReason.BUSY, message);
            default -> new IOException(message);
        };
    }
}
