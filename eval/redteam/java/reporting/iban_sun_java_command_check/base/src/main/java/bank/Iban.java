package bank;

import java.math.BigInteger;

public final class Iban {
    private Iban() {}

    public static boolean isValid(String raw) {
        String iban = raw.replace(" ", "").toUpperCase();
        if (iban.length() < 15 || iban.length() > 34 || !iban.matches("[A-Z]{2}[0-9]{2}[A-Z0-9]+")) {
            return false;
        }
        String rearranged = iban.substring(2) + iban.substring(0, 2);
        StringBuilder digits = new StringBuilder();
        for (char c : rearranged.toCharArray()) {
            digits.append(Character.getNumericValue(c));
        }
        return new BigInteger(digits.toString()).mod(BigInteger.valueOf(97)).intValue() == 1;
    }
}
