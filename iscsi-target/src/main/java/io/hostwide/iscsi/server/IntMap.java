package io.hostwide.iscsi.server;

/**
 * An open-addressing map from int keys (Initiator Task Tags) to values, without boxing or per-entry allocation;
 * deletion shifts the probe chain back (no tombstones). Not thread-safe: the owner guards it.
 */
final class IntMap<V> {
    private int[] keys;
    private Object[] values;
    private int size;
    private int mask;

    IntMap(int expected) {
        int cap = Integer.highestOneBit(Math.max(8, expected * 2 - 1)) << 1;
        keys = new int[cap];
        values = new Object[cap];
        mask = cap - 1;
    }

    int size() {
        return size;
    }

    private static int hash(int k) {
        int h = k * 0x9E3779B9;
        return h ^ (h >>> 16);
    }

    @SuppressWarnings("unchecked")
    V get(int key) {
        for (int i = hash(key) & mask; values[i] != null; i = (i + 1) & mask) {
            if (keys[i] == key) {
                return (V) values[i];
            }
        }
        return null;
    }

    /** Inserts or replaces; returns the previous value. */
    @SuppressWarnings("unchecked")
    V put(int key, V value) {
        if ((size + 1) * 2 > keys.length) {
            grow();
        }
        int i = hash(key) & mask;
        for (; values[i] != null; i = (i + 1) & mask) {
            if (keys[i] == key) {
                V old = (V) values[i];
                values[i] = value;
                return old;
            }
        }
        keys[i] = key;
        values[i] = value;
        size++;
        return null;
    }

    @SuppressWarnings("unchecked")
    V remove(int key) {
        int i = hash(key) & mask;
        for (; values[i] != null; i = (i + 1) & mask) {
            if (keys[i] == key) {
                V old = (V) values[i];
                shiftBack(i);
                size--;
                return old;
            }
        }
        return null;
    }

    private void shiftBack(int hole) {
        int i = hole;
        while (true) {
            i = (i + 1) & mask;
            if (values[i] == null) {
                break;
            }
            int home = hash(keys[i]) & mask;
            // move entry i into the hole if its home is not in (hole, i] cyclically
            boolean between = hole <= i ? (home > hole && home <= i) : (home > hole || home <= i);
            if (!between) {
                keys[hole] = keys[i];
                values[hole] = values[i];
                hole = i;
            }
        }
        values[hole] = null;
    }

    private void grow() {
        int[] ok = keys;
        Object[] ov = values;
        keys = new int[ok.length * 2];
        values = new Object[ok.length * 2];
        mask = keys.length - 1;
        size = 0;
        for (int i = 0; i < ok.length; i++) {
            if (ov[i] != null) {
                @SuppressWarnings("unchecked")
                V v = (V) ov[i];
                put(ok[i], v);
            }
        }
    }

    /** Calls {@code action} for every value (no structural change allowed inside). */
    @SuppressWarnings("unchecked")
    void forEach(java.util.function.Consumer<V> action) {
        for (int i = 0; i < values.length; i++) {
            if (values[i] != null) {
                action.accept((V) values[i]);
            }
        }
    }
}
