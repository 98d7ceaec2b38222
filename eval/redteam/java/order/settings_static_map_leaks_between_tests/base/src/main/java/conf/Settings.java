package conf;

import java.util.HashMap;
import java.util.Map;

public class Settings {
    private static final Map<String, String> DEFAULTS = Map.of(
        "http.retries", "3");

    private final Map<String, String> values = new HashMap<>();

    public void set(String key, String value) {
        values.put(key, value);
    }

    public String get(String key) {
        String v = values.get(key);
        return v != null ? v : DEFAULTS.get(key);
    }
}
