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

    @Test
    void moreReasonPhrases() {
        assertEquals("Too Many Requests", Status.reason(429));
        assertEquals("Service Unavailable", Status.reason(503));
        assertEquals("Created", Status.reason(201));
    }

    @Test
    void unknownCodesFallBackToClass() {
        assertEquals("Client Error", Status.reason(418));
        assertEquals("Unknown", Status.reason(99));
    }
}
