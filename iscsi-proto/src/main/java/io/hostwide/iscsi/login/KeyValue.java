package io.hostwide.iscsi.login;

/** One {@code key=value} pair of a text data segment, RFC 7143 §6.1. */
public record KeyValue(String key, String value) {
    @Override
    public String toString() {
        // CHAP responses and challenges are secrets' derivatives: never print their values.
        return key.startsWith("CHAP_") ? key + "=<redacted>" : key + "=" + value;
    }
}
