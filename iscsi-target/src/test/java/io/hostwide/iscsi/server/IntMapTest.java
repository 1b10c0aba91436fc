package io.hostwide.iscsi.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class IntMapTest {
    @Test
    void behavesLikeAHashMapUnderRandomOperations() {
        Random r = new Random(42);
        IntMap<String> m = new IntMap<>(4);
        Map<Integer, String> ref = new HashMap<>();
        for (int i = 0; i < 200_000; i++) {
            int k = r.nextInt(300) - 150;
            switch (r.nextInt(3)) {
                case 0 -> assertThat(m.put(k, "v" + i)).isEqualTo(ref.put(k, "v" + i));
                case 1 -> assertThat(m.remove(k)).isEqualTo(ref.remove(k));
                default -> assertThat(m.get(k)).isEqualTo(ref.get(k));
            }
            assertThat(m.size()).isEqualTo(ref.size());
        }
    }
}
