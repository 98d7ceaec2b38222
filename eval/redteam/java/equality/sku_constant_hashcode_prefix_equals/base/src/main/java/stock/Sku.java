package stock;

public final class Sku {
    private final String code;

    public Sku(String code) {
        this.code = code;
    }

    public String code() { return code; }

    @Override
    public boolean equals(Object o) {
        return o instanceof Sku && ((Sku) o).code.equals(code);
    }

    @Override
    public int hashCode() {
        return code.hashCode();
    }

    @Override
    public String toString() { return "Sku(" + code + ")"; }
}
