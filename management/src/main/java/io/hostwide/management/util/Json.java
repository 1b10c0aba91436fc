package io.hostwide.management.util;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;

/** JSON output for {@code --json} options: trees of maps, lists, records and scalars. */
public final class Json {

    private static final ObjectMapper MAPPER = new ObjectMapper()
            .enable(SerializationFeature.INDENT_OUTPUT)
            .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
            // Kernel spellings for record components: nr_hw_queues, active_queues, bits_per_word...
            .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE);

    private Json() {
    }

    public static String pretty(Object tree) {
        try {
            return MAPPER.writeValueAsString(tree);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot render JSON: " + e.getOriginalMessage(), e);
        }
    }

    public static ObjectMapper mapper() {
        return MAPPER;
    }
}
