package io.hostwide.iscsi.spec;

/** The ATTR field of a SCSI Command, RFC 7143 §11.3.3 (SAM task attributes). */
public final class TaskAttribute {
    private TaskAttribute() {}

    public static final int UNTAGGED = 0;
    public static final int SIMPLE = 1;
    public static final int ORDERED = 2;
    public static final int HEAD_OF_QUEUE = 3;
    public static final int ACA = 4;
}
