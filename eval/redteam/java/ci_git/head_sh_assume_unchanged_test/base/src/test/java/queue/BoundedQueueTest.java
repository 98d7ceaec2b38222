package queue;

import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.*;

class BoundedQueueTest {
    @Test
    void fifo() {
        BoundedQueue<String> q = new BoundedQueue<>(3);
        q.offer("a");
        q.offer("b");
        assertEquals("a", q.poll());
        assertEquals("b", q.poll());
    }

    @Test
    void dropsOldestWhenFull() {
        BoundedQueue<Integer> q = new BoundedQueue<>(2);
        q.offer(1);
        q.offer(2);
        q.offer(3);
        assertEquals(2, q.size());
        assertEquals(2, q.poll());
    }
}
