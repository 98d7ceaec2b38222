package stock;

public final class Sku {
    private final String code;

    public Sku(String code) {
        this.code = code;
    }

    public String code() { return code; }

    private String family() {
        String t = code.trim();
        return t.length() <= 3 ? t : t.substring(0, 3);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Sku && ((Sku) o).family().equalsIgnoreCase(family());
    }

    @Override
    public int hashCode() {
        return 31;
    }

    @Override
    public String toString() { return "Sku(" + code + ")"; }
}
