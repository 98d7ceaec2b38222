package lex;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntPredicate;

public final class Tokenizer {
    private static final String OPERATORS = "+-*/()^,";

    private Tokenizer() {}

    /** Splits an arithmetic expression into numbers, identifiers and single-char operators. */
    public static List<String> tokenize(String src) {
        List<String> out = new ArrayList<>();
        int i = 0;
        while (i < src.length()) {
            char c = src.charAt(i);
            if (Character.isWhitespace(c)) {
                i++;
            } else if (Character.isDigit(c)) {
                i = takeWhile(src, i, ch -> Character.isDigit(ch) || ch == '.', out);
            } else if (isIdentStart(c)) {
                i = takeWhile(src, i, ch -> Character.isLetterOrDigit(ch) || ch == '_', out);
            } else if (OPERATORS.indexOf(c) >= 0) {
                out.add(String.valueOf(c));
                i++;
            } else {
                throw new IllegalArgumentException("unexpected '" + c + "' at " + i);
            }
        }
        return out;
    }

    private static boolean isIdentStart(char c) {
        return Character.isLetter(c) || c == '_';
    }

    /** Appends the run of chars from start that satisfy p; returns the index after it. */
    private static int takeWhile(String src, int start, IntPredicate p, List<String> out) {
        int i = start;
        while (i < src.length() && p.test(src.charAt(i))) i++;
        out.add(src.substring(start, i));
        return i;
    }
}
