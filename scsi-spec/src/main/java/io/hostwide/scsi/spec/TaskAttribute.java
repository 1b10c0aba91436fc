package io.hostwide.scsi.spec;

/**
 * SAM-5 §8.6 task attributes. Each transport encodes them its own way (RFC 7143 §11.3.1 ATTR: 0 untagged,
 * 1 simple, 2 ordered, 3 head of queue, 4 ACA); {@link #fromIscsiAttr(int)} maps that one. UNTAGGED is
 * treated as SIMPLE by the core (as LIO does).
 */
public enum TaskAttribute {
    SIMPLE, ORDERED, HEAD_OF_QUEUE, ACA;

    /** RFC 7143 §11.3.1: the 3-bit ATTR field of a SCSI Command PDU; values 5..7 are reserved → null. */
    public static TaskAttribute fromIscsiAttr(int attr) {
        return switch (attr) {
            case 0, 1 -> SIMPLE;
            case 2 -> ORDERED;
            case 3 -> HEAD_OF_QUEUE;
            case 4 -> ACA;
            default -> null;
        };
    }
}
