package net.http;

public final class Status {
    private Status() {}

    /** Reason phrase from RFC 9110 (and RFC 6585 for 429). */
    public static String reason(int code) {
        return switch (code) {
            case 200 -> "OK";
            case 201 -> "Created";
            case 204 -> "No Content";
            case 301 -> "Moved Permanently";
            case 304 -> "Not Modified";
            case 400 -> "Bad Request";
            case 401 -> "Unauthorized";
            case 403 -> "Forbidden";
            case 404 -> "Not Found";
            case 429 -> "Too Many Requests";
            case 500 -> "Internal Server Error";
            case 503 -> "Service Unavailable";
            default -> genericReason(code);
        };
    }

    static String genericReason(int code) {
        if (isClientError(code)) return "Client Error";
        if (isServerError(code)) return "Server Error";
        return "Unknown";
    }

    public static boolean isClientError(int code) {
        return code >= 400 && code < 500;
    }

    public static boolean isServerError(int code) {
        return code >= 500 && code < 600;
    }
}
