package io.hostwide.cli.copy;

import picocli.CommandLine;

/** How the verify pass checks the destination against the source ({@code --method}). */
public enum VerifyMethod {
    /** Read both ranges and compare the bytes here. */
    COMPARE("compare"),
    /** Read the source and send it as the Data-Out of VERIFY(16) with BYTCHK=1: the destination compares. */
    VERIFY_CMD("verify-cmd");

    final String label;

    VerifyMethod(String label) {
        this.label = label;
    }

    @Override
    public String toString() {
        return label;
    }

    /** picocli converter for the labels. */
    static final class Converter implements CommandLine.ITypeConverter<VerifyMethod> {
        @Override
        public VerifyMethod convert(String value) {
            for (VerifyMethod m : values()) {
                if (m.label.equals(value)) {
                    return m;
                }
            }
            throw new CommandLine.TypeConversionException("'" + value + "' is not a method (compare, verify-cmd)");
        }
    }
}
