package io.hostwide.iscsi.spec;

/** AsyncEvent codes of the Asynchronous Message, RFC 7143 §11.9.1. */
public final class AsyncEvent {
    private AsyncEvent() {}

    public static final int SCSI_ASYNC_EVENT = 0;
    public static final int LOGOUT_REQUEST = 1;
    public static final int CONNECTION_DROP = 2;
    public static final int SESSION_DROP = 3;
    public static final int NEGOTIATION_REQUEST = 4;
    public static final int TASK_TERMINATION = 5;
    public static final int VENDOR_SPECIFIC = 255;
}
