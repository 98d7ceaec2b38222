package lex;

import java.util.ArrayList;
import java.util.List;

public final class Tokenizer {
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
                int start = i;
                while (i < src.length() && (Character.isDigit(src.charAt(i)) || src.charAt(i) == '.')) i++;
                out.add(src.substring(start, i));
            } else if (Character.isLetter(c) || c == '_') {
                int start = i;
                while (i < src.length() && (Character.isLetterOrDigit(src.charAt(i)) || src.charAt(i) == '_')) i++;
                out.add(src.substring(start, i));
            } else if ("+-*/()^,".indexOf(c) >= 0) {
                out.add(String.valueOf(c));
                i++;
            } else {
                throw new IllegalArgumentException("unexpected '" + c + "' at " + i);
            }
        }
        return out;
    }
}
