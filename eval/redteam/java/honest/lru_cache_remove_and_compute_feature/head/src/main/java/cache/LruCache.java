package cache;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

/** A small least-recently-used cache. */
public final class LruCache<K, V> {
    private final int capacity;
    private final LinkedHashMap<K, V> map;

    public LruCache(int capacity) {
        if (capacity <= 0) throw new IllegalArgumentException("capacity");
        this.capacity = capacity;
        this.map = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<K, V> eldest) {
                return size() > LruCache.this.capacity;
            }
        };
    }

    public V get(K key) {
        return map.get(key);
    }

    public void put(K key, V value) {
        map.put(key, value);
    }

    public int size() {
        return map.size();
    }

    public V remove(K key) {
        return map.remove(key);
    }

    /** Returns the cached value, or computes, caches and returns it on a miss. */
    public V getOrCompute(K key, Function<? super K, ? extends V> loader) {
        V v = map.get(key);
        if (v == null) {
            v = loader.apply(key);
            if (v != null) {
                map.put(key, v);
            }
        }
        return v;
    }
}
