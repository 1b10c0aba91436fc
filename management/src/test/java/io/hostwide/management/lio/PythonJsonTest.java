package io.hostwide.management.lio;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The layout of Python's json.dump(sort_keys=True, indent=2), byte for byte: what rtslib writes. */
class PythonJsonTest {

    private static String write(Object v) {
        StringBuilder sb = new StringBuilder();
        PythonJson.write(sb, v, 0);
        return sb.toString();
    }

    @Test
    void nestingEmptyContainersAndScalars() {
        Map<String, Object> m = new TreeMap<>(Map.of("b", List.of(1, true), "a", Map.of(), "c", List.of(),
                "d", 10737418240L));
        assertEquals("{\n  \"a\": {},\n  \"b\": [\n    1,\n    true\n  ],\n  \"c\": [],\n  \"d\": 10737418240\n}",
                write(m));
    }

    /** json.dumps(["é\"\\\n\t\u0001/\u007f€"]) in Python 3: ensure_ascii escapes everything outside space..tilde, DEL included. */
    @Test
    void stringsAreEscapedAsPythonDoes() {
        assertEquals("[\n  \"\\u00e9\\\"\\\\\\n\\t\\u0001/\\u007f\\u20ac\"\n]", write(List.of("é\"\\\n\t\u0001/\u007f€")));
    }
}
