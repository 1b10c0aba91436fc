package io.hostwide.management.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.Iterator;
import java.util.Set;

/**
 * JSON-RPC 2.0 (https://www.jsonrpc.org/specification) over lines: one request (or batch) per line in, one
 * response per line out, nothing for a notification. Params are by name only; a request with params by position
 * is invalid params (-32602). The methods are {@link ManagementApi}'s.
 */
public final class JsonRpc {
    /** Strict as the configuration loader: a duplicate member is a parse error, not "the last one wins". */
    static final ObjectMapper MAPPER = JsonMapper.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();
    private static final Set<String> MEMBERS = Set.of("jsonrpc", "method", "params", "id");

    private final ManagementApi api;

    public JsonRpc(ManagementApi api) {
        this.api = api;
    }

    /** Answers one line; null when there is nothing to send (only notifications). */
    public String handle(String line) {
        JsonNode req;
        try {
            req = MAPPER.readTree(line);
        } catch (JsonProcessingException e) {
            return write(error(null, ApiException.protocol(ApiException.PARSE_ERROR,
                    "parse error: " + e.getOriginalMessage())));
        }
        if (req == null || req.isMissingNode()) {
            return write(error(null, ApiException.protocol(ApiException.INVALID_REQUEST, "empty request")));
        }
        if (req.isArray()) { // §6 batch
            if (req.isEmpty()) {
                return write(error(null, ApiException.protocol(ApiException.INVALID_REQUEST, "empty batch")));
            }
            ArrayNode out = JsonNodeFactory.instance.arrayNode();
            for (JsonNode r : req) {
                ObjectNode resp = one(r);
                if (resp != null) {
                    out.add(resp);
                }
            }
            return out.isEmpty() ? null : write(out);
        }
        ObjectNode resp = one(req);
        return resp == null ? null : write(resp);
    }

    private ObjectNode one(JsonNode req) {
        if (!req.isObject()) {
            return error(null, ApiException.protocol(ApiException.INVALID_REQUEST, "a request is a JSON object"));
        }
        JsonNode id = req.get("id");
        if (id != null && !(id.isTextual() || id.isNumber() || id.isNull())) {
            return error(null, ApiException.protocol(ApiException.INVALID_REQUEST, "id must be a string, a number or null"));
        }
        try {
            for (Iterator<String> it = req.fieldNames(); it.hasNext(); ) {
                String m = it.next();
                if (!MEMBERS.contains(m)) {
                    throw ApiException.protocol(ApiException.INVALID_REQUEST, "unknown member '" + m
                            + "' (a request has jsonrpc, method, params, id)");
                }
            }
            if (!"2.0".equals(req.path("jsonrpc").textValue())) {
                throw ApiException.protocol(ApiException.INVALID_REQUEST, "jsonrpc must be \"2.0\"");
            }
            JsonNode method = req.get("method");
            if (method == null || !method.isTextual()) {
                throw ApiException.protocol(ApiException.INVALID_REQUEST, "method must be a string");
            }
            JsonNode params = req.get("params");
            if (params != null && params.isArray()) {
                throw ApiException.badParam("params", "params must be an object: this server takes params by name");
            }
            if (params != null && !params.isObject()) {
                throw ApiException.protocol(ApiException.INVALID_REQUEST, "params must be an object");
            }
            Object result = api.call(method.textValue(), (ObjectNode) params);
            if (id == null) {
                return null; // §4.1 notification: no response, even for an error
            }
            ObjectNode resp = header(id);
            resp.set("result", MAPPER.valueToTree(result));
            return resp;
        } catch (ApiException e) {
            return id == null && e.code() != ApiException.INVALID_REQUEST ? null : error(id, e);
        }
    }

    private static ObjectNode header(JsonNode id) {
        ObjectNode resp = JsonNodeFactory.instance.objectNode();
        resp.put("jsonrpc", "2.0");
        resp.set("id", id == null ? JsonNodeFactory.instance.nullNode() : id);
        return resp;
    }

    private static ObjectNode error(JsonNode id, ApiException e) {
        ObjectNode resp = header(id);
        ObjectNode err = resp.putObject("error");
        err.put("code", e.code());
        err.put("message", e.getMessage());
        if (e.data() != null) {
            err.set("data", MAPPER.valueToTree(e.data()));
        }
        return resp;
    }

    private static String write(JsonNode n) {
        try {
            return MAPPER.writeValueAsString(n);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot render a response", e);
        }
    }

    /** A request line for {@code method} with {@code params} (a JSON object text, or null), for clients. */
    public static String request(Object id, String method, String params) {
        ObjectNode req = JsonNodeFactory.instance.objectNode();
        req.put("jsonrpc", "2.0");
        req.put("method", method);
        if (params != null && !params.isBlank()) {
            try {
                req.set("params", MAPPER.readTree(params));
            } catch (JsonProcessingException e) {
                throw new IllegalArgumentException("params are not valid JSON: " + e.getOriginalMessage());
            }
        }
        req.set("id", MAPPER.valueToTree(id));
        return write(req);
    }

    /** Parses a response line (clients). */
    public static JsonNode parse(String line) {
        try {
            return MAPPER.readTree(line);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("the server's answer is not JSON: " + e.getOriginalMessage());
        }
    }
}
