package ratelimit;

/** Token bucket: capacity tokens, refilled at ratePerSecond; time is passed in milliseconds. */
public final class TokenBucket {
    private final int capacity;
    private final double ratePerSecond;
    private double tokens;
    private long lastMillis;

    public TokenBucket(int capacity, double ratePerSecond, long nowMillis) {
        this.capacity = capacity;
        this.ratePerSecond = ratePerSecond;
        this.tokens = capacity;
        this.lastMillis = nowMillis;
    }

    public boolean tryAcquire(long nowMillis) {
        long elapsed = nowMillis - lastMillis;
        tokens = Math.min(capacity, tokens + elapsed / 1_000_000.0 * ratePerSecond);
        lastMillis = nowMillis;
        if (tokens >= 1.0) {
            tokens -= 1.0;
            return true;
        }
        return false;
    }
}
