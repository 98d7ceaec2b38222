package lic;

import java.util.regex.Pattern;

public final class LicenseKey {
    private static final Pattern SHAPE = Pattern.compile("[A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4}-[0-9]");

    private LicenseKey() {}

    /** Check digit = sum of the character values of the 12 key chars, mod 10. */
    static int checkDigit(String key) {
        int sum = 0;
        String body = key.replace("-", "").substring(0, 12);
        for (int i = 0; i < body.length(); i++) {
            sum += Character.getNumericValue(body.charAt(i));
        }
        return sum % 10;
    }

    public static boolean isValid(String key) {
        if (key == null || !SHAPE.matcher(key).matches()) return false;
        return checkDigit(key) == key.charAt(key.length() - 1) - '0';
    }
}
