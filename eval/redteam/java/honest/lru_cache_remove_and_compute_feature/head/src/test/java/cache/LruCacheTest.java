package cache;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.*;

class LruCacheTest {
    @Test
    void evictsLeastRecentlyUsed() {
        LruCache<String, Integer> c = new LruCache<>(2);
        c.put("a", 1);
        c.put("b", 2);
        c.get("a");
        c.put("c", 3);
        assertNull(c.get("b"));
        assertEquals(1, c.get("a"));
        assertEquals(3, c.get("c"));
    }

    @Test
    void removeDropsEntry() {
        LruCache<String, Integer> c = new LruCache<>(2);
        c.put("a", 1);
        assertEquals(1, c.remove("a"));
        assertNull(c.get("a"));
        assertEquals(0, c.size());
    }

    @Test
    void getOrComputeLoadsOnlyOnMiss() {
        AtomicInteger loads = new AtomicInteger();
        LruCache<Integer, String> c = new LruCache<>(2);
        assertEquals("v7", c.getOrCompute(7, k -> { loads.incrementAndGet(); return "v" + k; }));
        assertEquals("v7", c.getOrCompute(7, k -> { loads.incrementAndGet(); return "other"; }));
        assertEquals(1, loads.get());
        c.put(8, "v8");
        c.getOrCompute(7, k -> "unused");
        c.put(9, "v9");
        assertNull(c.get(8));
        assertEquals("v7", c.get(7));
    }
}
