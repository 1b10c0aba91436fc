package io.hostwide.management.config;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;

/**
 * A configuration problem found while building what the file describes (a file backstore that cannot be opened):
 * the key it is about and what is wrong, so that {@code serve} can name the file and line as the loader does.
 */
public final class ConfigKeyException extends IllegalArgumentException {
    private final String key;
    private final String detail;

    /** {@code detail} follows the key: ": cannot open ...". */
    public ConfigKeyException(String key, String detail, Throwable cause) {
        super(key + detail, cause);
        this.key = key;
        this.detail = detail;
    }

    public String key() { return key; }

    public String detail() { return detail; }

    /** The operating system's reason, in words, never an exception class name. */
    public static String reason(IOException e) {
        if (e instanceof NoSuchFileException) {
            return "no such file or directory";
        }
        if (e instanceof AccessDeniedException) {
            return "permission denied";
        }
        if (e instanceof FileSystemException f && f.getReason() != null) {
            return f.getReason();
        }
        return e.getMessage() == null ? "I/O error" : e.getMessage();
    }
}
