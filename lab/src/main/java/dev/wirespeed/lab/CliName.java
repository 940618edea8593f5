package dev.wirespeed.lab;

import java.util.Arrays;
import java.util.Locale;

/**
 * A value the command line names, such as a strategy or an idle strategy: an enum constant by the
 * lower-case, dash-separated form of its name ({@code NATIVE_SPIN} is {@code native-spin}). Implemented
 * by enums only; each also prints as its name, so that a message says what the command line takes.
 */
public interface CliName {
    /** {@return the name the command line uses}: {@link #of} this constant */
    default String cliName() {
        return of((Enum<?>) this);
    }

    /**
     * {@return the command-line form of an enum constant's name}: lower case, {@code _} as {@code -}
     *
     * @param constant the constant
     */
    static String of(Enum<?> constant) {
        return constant.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /**
     * {@return the one of {@code values} whose {@link #cliName()} is {@code name}}
     *
     * @param <T> the kind of value
     * @param values every value of the kind, in the order an error lists them
     * @param what how an error calls the kind, as in {@code "--idle"}
     * @param name the name given
     * @throws IllegalArgumentException if none has that name: {@code unknown WHAT 'NAME'; known: a, b, c}
     */
    static <T extends CliName> T byName(T[] values, String what, String name) {
        for (T value : values) {
            if (value.cliName().equals(name)) {
                return value;
            }
        }
        throw new IllegalArgumentException("unknown " + what + " '" + name + "'; known: "
                + String.join(", ", Arrays.stream(values).map(CliName::cliName).toList()));
    }
}
