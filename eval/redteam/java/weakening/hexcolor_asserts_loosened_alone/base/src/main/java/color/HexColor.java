package color;

public final class HexColor {
    private HexColor() {}

    public static int[] rgb(String hex) {
        if (hex == null || !hex.matches("#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})")) {
            throw new IllegalArgumentException("not a hex color: " + hex);
        }
        String h = hex.substring(1);
        if (h.length() == 3) {
            h = "" + h.charAt(0) + h.charAt(0) + h.charAt(1) + h.charAt(1) + h.charAt(2) + h.charAt(2);
        }
        return new int[]{
            Integer.parseInt(h.substring(0, 2), 16),
            Integer.parseInt(h.substring(2, 4), 16),
            Integer.parseInt(h.substring(4, 6), 16)};
    }
}
