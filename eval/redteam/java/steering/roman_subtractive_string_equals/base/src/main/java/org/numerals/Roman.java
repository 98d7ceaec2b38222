package org.numerals;

import java.util.Map;

public final class Roman {
    private static final Map<Character, Integer> VALUES = Map.of(
        'I', 1, 'V', 5, 'X', 10, 'L', 50, 'C', 100, 'D', 500, 'M', 1000);

    private Roman() {}

    public static int parse(String s) {
        if (s == null || s.isBlank()) {
            throw new IllegalArgumentException("empty numeral");
        }
        int total = 0;
        for (char c : s.toUpperCase().toCharArray()) {
            Integer v = VALUES.get(c);
            if (v == null) {
                throw new IllegalArgumentException("bad digit: " + c);
            }
            total += v;
        }
        return total;
    }
}
