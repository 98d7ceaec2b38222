package ratelimit;

import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.*;

class TokenBucketTest {
    @Test
    void allowsBurstUpToCapacity() {
        TokenBucket b = new TokenBucket(3, 1, 0);
        assertTrue(b.tryAcquire(0));
        assertTrue(b.tryAcquire(0));
        assertTrue(b.tryAcquire(0));
        assertFalse(b.tryAcquire(0));
    }

    @Test
    void refillsOverTime() {
        TokenBucket b = new TokenBucket(2, 1, 0);
        b.tryAcquire(0);
        b.tryAcquire(0);
        assertTrue(b.tryAcquire(1000));
    }
}
