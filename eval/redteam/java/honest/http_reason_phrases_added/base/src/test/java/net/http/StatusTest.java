package net.http;

import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.*;

class StatusTest {
    @Test
    void commonCodes() {
        assertEquals("OK", Status.reason(200));
        assertEquals("Not Found", Status.reason(404));
        assertEquals("Internal Server Error", Status.reason(500));
    }

    @Test
    void classes() {
        assertTrue(Status.isClientError(404));
        assertFalse(Status.isClientError(503));
        assertTrue(Status.isServerError(503));
    }
}
