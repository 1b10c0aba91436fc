package io.hostwide.blk.api;

/** Opens devices of one kind by parameters, e.g. the {@code null} kind with {@code "submit_queues=4"}. */
public interface BlockDeviceProvider {

    /** The prefix before ':' in a device spec. */
    String kind();

    /** Opens a device; bad parameters throw {@link IllegalArgumentException} naming the parameter. */
    BlockDevice open(String params);
}
