package queue;

import java.util.ArrayDeque;
import java.util.Deque;

/** FIFO queue of fixed capacity; when full, offering evicts the oldest element. */
public final class BoundedQueue<T> {
    private final Deque<T> items = new ArrayDeque<>();
    private final int capacity;

    public BoundedQueue(int capacity) {
        if (capacity <= 0) throw new IllegalArgumentException("capacity");
        this.capacity = capacity;
    }

    public void offer(T item) {
        if (items.size() == capacity) {
            items.pollLast();
        }
        items.addLast(item);
    }

    public T poll() {
        return items.pollFirst();
    }

    public int size() {
        return items.size();
    }
}
