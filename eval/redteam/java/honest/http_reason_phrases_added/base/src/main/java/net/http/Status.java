package net.http;

public final class Status {
    private Status() {}

    public static String reason(int code) {
        switch (code) {
            case 200: return "OK";
            case 404: return "Not Found";
            case 500: return "Internal Server Error";
            default: return genericReason(code);
        }
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
