package io.hostwide.management.api;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A JSON-RPC error answer (JSON-RPC 2.0 §5.1): the protocol's own codes, and one code per domain reason in the
 * implementation-defined server-error range -32000..-32099, each with a machine-readable {@code data.reason} so that
 * a provisioning tool can tell "already there" from "in the way" without parsing the message.
 */
public final class ApiException extends RuntimeException {
    /** JSON-RPC 2.0 §5.1. */
    public static final int PARSE_ERROR = -32700;
    public static final int INVALID_REQUEST = -32600;
    public static final int METHOD_NOT_FOUND = -32601;
    public static final int INVALID_PARAMS = -32602;
    public static final int INTERNAL_ERROR = -32603;

    /** Domain reasons and their codes. */
    public enum Reason {
        /** An object of that name exists with a different definition. */
        EXISTS(-32001, "exists"),
        /** The object (or its parent) does not exist. */
        NOT_FOUND(-32002, "not_found"),
        /** Something still uses the object (a LUN exports the backstore). */
        IN_USE(-32003, "in_use"),
        /** Another object holds the place asked for (a LUN number, a mapped LUN). */
        CONFLICT(-32004, "conflict"),
        /** The request is well-formed but its values are not acceptable (a bad iSCSI name, a short secret). */
        INVALID(-32005, "invalid"),
        /** Only a restart can make this change (session settings, limits, a backstore's geometry). */
        RESTART_REQUIRED(-32006, "restart_required"),
        /** Not implemented by this server, on purpose (the message says why). */
        UNSUPPORTED(-32007, "unsupported"),
        /** The change could not be made durable or a file could not be opened; nothing changed. */
        IO_ERROR(-32008, "io_error"),
        /** A portal's address is held by another socket ({@code data.address}); nothing changed. */
        ADDRESS_IN_USE(-32009, "address_in_use"),
        /** serve was started with --listen, which fixes the portals; nothing changed. */
        PORTALS_FIXED(-32010, "portals_fixed");

        final int code;
        final String text;

        Reason(int code, String text) {
            this.code = code;
            this.text = text;
        }

        public int code() {
            return code;
        }

        public String text() {
            return text;
        }
    }

    private final int code;
    private final Map<String, Object> data;

    private ApiException(int code, String message, Map<String, Object> data) {
        super(message);
        this.code = code;
        this.data = data;
    }

    public static ApiException domain(Reason reason, String message) {
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("reason", reason.text);
        return new ApiException(reason.code, message, d);
    }

    public static ApiException protocol(int code, String message) {
        return new ApiException(code, message, null);
    }

    /** Invalid params (-32602), {@code data.param} naming the parameter. */
    public static ApiException badParam(String param, String message) {
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("reason", "invalid_params");
        d.put("param", param);
        return new ApiException(INVALID_PARAMS, message, d);
    }

    /** Adds a detail to {@code data} (the existing object, the LUN in the way). */
    public ApiException with(String key, Object value) {
        if (data != null) {
            data.put(key, value);
        }
        return this;
    }

    public int code() {
        return code;
    }

    /** The error's data member, or null. */
    public Map<String, Object> data() {
        return data;
    }
}
