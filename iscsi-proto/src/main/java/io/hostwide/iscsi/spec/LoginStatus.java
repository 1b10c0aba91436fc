package io.hostwide.iscsi.spec;

/** Login Response Status-Class and Status-Detail pairs, RFC 7143 §11.13.5. */
public enum LoginStatus {
    SUCCESS(0x00, 0x00),
    TARGET_MOVED_TEMPORARILY(0x01, 0x01),
    TARGET_MOVED_PERMANENTLY(0x01, 0x02),
    INITIATOR_ERROR(0x02, 0x00),
    AUTHENTICATION_FAILURE(0x02, 0x01),
    AUTHORIZATION_FAILURE(0x02, 0x02),
    NOT_FOUND(0x02, 0x03),
    TARGET_REMOVED(0x02, 0x04),
    UNSUPPORTED_VERSION(0x02, 0x05),
    TOO_MANY_CONNECTIONS(0x02, 0x06),
    MISSING_PARAMETER(0x02, 0x07),
    CANNOT_INCLUDE_IN_SESSION(0x02, 0x08),
    SESSION_TYPE_NOT_SUPPORTED(0x02, 0x09),
    SESSION_DOES_NOT_EXIST(0x02, 0x0a),
    INVALID_DURING_LOGIN(0x02, 0x0b),
    TARGET_ERROR(0x03, 0x00),
    SERVICE_UNAVAILABLE(0x03, 0x01),
    OUT_OF_RESOURCES(0x03, 0x02);

    /** Status classes, RFC 7143 §11.13.5. */
    public static final int CLASS_SUCCESS = 0x00;
    public static final int CLASS_REDIRECTION = 0x01;
    public static final int CLASS_INITIATOR_ERROR = 0x02;
    public static final int CLASS_TARGET_ERROR = 0x03;

    public final int statusClass;
    public final int statusDetail;

    LoginStatus(int statusClass, int statusDetail) {
        this.statusClass = statusClass;
        this.statusDetail = statusDetail;
    }
}
