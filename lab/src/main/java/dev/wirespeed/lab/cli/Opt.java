package dev.wirespeed.lab.cli;

import dev.wirespeed.lab.CliName;
import java.nio.file.Path;
import java.util.Objects;
import java.util.function.Function;

/**
 * One option of a command, said once: its name, its type, how its value is read from a command line and
 * written back to one, its default and its help. Picocli's model of the command ({@code PicocliOptions}),
 * the parser of the lab's child JVMs ({@link DirectLine}) and the lines an experiment gives a child
 * ({@link Args#toArgs()}) are all made from these.
 *
 * <p>A value is read by one function for both parsers: numbers as an optional {@code -} and 1 to 18
 * decimal digits, names by {@link CliName}. A value that does not read throws
 * {@link IllegalArgumentException} naming the option and the value.
 *
 * <p>Thread safety: immutable.
 *
 * @param <T> the type of its value
 */
public final class Opt<T> {
    /** What an option takes from the command line. */
    enum Kind {
        /** One value, the next token. */
        VALUE,
        /** No value: given means true. */
        FLAG,
        /** No value: {@code --name} means true, {@code --no-name} false. */
        NEGATABLE
    }

    private final String name;
    private final Class<T> type;
    private final Kind kind;
    private final Function<String, T> parse;
    private final Function<T, String> format;
    private final T defaultValue;
    private final boolean required;
    private final String label;
    private final String help;

    private Opt(String name, Class<T> type, Kind kind, Function<String, T> parse, Function<T, String> format,
            T defaultValue, boolean required, String label, String help) {
        if (!name.startsWith("--")) {
            throw new IllegalArgumentException("option name=" + name + " must start with --");
        }
        this.name = name;
        this.type = type;
        this.kind = kind;
        this.parse = parse;
        this.format = format;
        this.defaultValue = defaultValue;
        this.required = required;
        this.label = label;
        this.help = help;
    }

    /**
     * {@return an option of one value}
     *
     * @param <T> the value's type
     * @param name the option, as {@code --size}
     * @param type the value's class
     * @param parse reads a value from the command line, throwing {@link IllegalArgumentException} if it cannot
     * @param format writes a value as {@code parse} reads it
     * @param defaultValue the value when the option is absent, or null
     * @param help the help line; {@code ${DEFAULT-VALUE}} stands for the default
     */
    public static <T> Opt<T> of(String name, Class<T> type, Function<String, T> parse, Function<T, String> format,
            T defaultValue, String help) {
        return new Opt<>(name, type, Kind.VALUE, parse, format, defaultValue, false, null, help);
    }

    /**
     * {@return a flag: false unless given}
     *
     * @param name the option, as {@code --json}
     * @param help the help line
     */
    public static Opt<Boolean> flag(String name, String help) {
        return new Opt<>(name, Boolean.class, Kind.FLAG, Boolean::valueOf, String::valueOf, false, false, null, help);
    }

    /**
     * {@return a flag that is true unless {@code --no-NAME} is given} ({@code --NAME} says true)
     *
     * @param name the option, as {@code --jit-settle}
     * @param help the help line
     */
    public static Opt<Boolean> negatable(String name, String help) {
        return new Opt<>(name, Boolean.class, Kind.NEGATABLE, Boolean::valueOf, String::valueOf, true, false, null,
                help);
    }

    /**
     * {@return an option whose value is an int}
     *
     * @param name the option
     * @param defaultValue its value when absent, or null
     * @param help the help line
     */
    public static Opt<Integer> ofInt(String name, Integer defaultValue, String help) {
        return of(name, Integer.class, value -> {
            long number = number(name, value);
            if (number != (int) number) {
                throw failValue(name, value, "not an int");
            }
            return (int) number;
        }, String::valueOf, defaultValue, help);
    }

    /**
     * {@return an option whose value is a long}
     *
     * @param name the option
     * @param defaultValue its value when absent, or null
     * @param help the help line
     */
    public static Opt<Long> ofLong(String name, Long defaultValue, String help) {
        return of(name, Long.class, value -> number(name, value), String::valueOf, defaultValue, help);
    }

    /**
     * {@return an option whose value is a double}, written without a fraction when it has none
     *
     * @param name the option
     * @param defaultValue its value when absent, or null
     * @param help the help line
     */
    public static Opt<Double> ofDouble(String name, Double defaultValue, String help) {
        return of(name, Double.class, value -> {
            try {
                return Double.parseDouble(value);
            } catch (NumberFormatException e) {
                throw failValue(name, value, "not a number");
            }
        }, value -> value == Math.rint(value) && Math.abs(value) < 1e15 ? Long.toString(value.longValue())
                : Double.toString(value), defaultValue, help);
    }

    /**
     * {@return an option whose value is a string}
     *
     * @param name the option
     * @param defaultValue its value when absent, or null
     * @param help the help line
     */
    public static Opt<String> ofString(String name, String defaultValue, String help) {
        return of(name, String.class, value -> value, value -> value, defaultValue, help);
    }

    /**
     * {@return an option whose value is a file's path}
     *
     * @param name the option
     * @param defaultValue its value when absent, or null
     * @param help the help line
     */
    public static Opt<Path> ofPath(String name, Path defaultValue, String help) {
        return of(name, Path.class, Path::of, Path::toString, defaultValue, help);
    }

    /**
     * {@return an option whose value is one of an enum's constants, by its {@link CliName#cliName()}}
     *
     * @param <E> the enum
     * @param name the option
     * @param what how an unknown name's message calls the kind, usually the option's name
     * @param values every constant, in the order the message lists them
     * @param defaultValue its value when absent, or null
     * @param help the help line
     */
    public static <E extends Enum<E> & CliName> Opt<E> ofName(String name, String what, E[] values, E defaultValue,
            String help) {
        @SuppressWarnings("unchecked")
        Class<E> type = (Class<E>) values.getClass().getComponentType();
        return of(name, type, value -> CliName.byName(values, what, value), CliName::cliName, defaultValue, help);
    }

    /** {@return this option, which every command line must give}: it has no default */
    public Opt<T> required() {
        if (defaultValue != null || kind != Kind.VALUE) {
            throw new IllegalStateException(name + " has a default or takes no value: it cannot be required");
        }
        return new Opt<>(name, type, kind, parse, format, null, true, label, help);
    }

    /**
     * {@return this option, its value called {@code label} in the help}
     *
     * @param label as {@code MS}
     */
    public Opt<T> label(String label) {
        return new Opt<>(name, type, kind, parse, format, defaultValue, required, label, help);
    }

    /** {@return the option's name, as {@code --size}} */
    public String name() {
        return name;
    }

    /** {@return the class of its value} */
    public Class<T> type() {
        return type;
    }

    Kind kind() {
        return kind;
    }

    /** {@return its value when the command line does not give it; null if none} */
    public T defaultValue() {
        return defaultValue;
    }

    /** {@return whether every command line must give it} */
    public boolean isRequired() {
        return required;
    }

    /** {@return what its value is called in the help, or null for picocli's choice} */
    String label() {
        return label;
    }

    /** {@return its help line} */
    String help() {
        return help;
    }

    /**
     * {@return a value read from the command line}
     *
     * @param value the token after the option's name
     * @throws IllegalArgumentException if it does not read, naming the option and the value
     */
    public T parse(String value) {
        return parse.apply(value);
    }

    /**
     * {@return a value as the command line writes it}
     *
     * @param value the value, not null
     */
    public String format(T value) {
        return format.apply(Objects.requireNonNull(value, name));
    }

    /** {@return {@code value} as this option's type} @throws ClassCastException if it is not */
    T cast(Object value) {
        return type.cast(value);
    }

    @Override
    public String toString() {
        return name;
    }

    /**
     * {@return an optional {@code -} and 1 to 18 decimal digits as a long}: no sign {@code +}, radix or white
     * space, so that every parser of the lab reads a number alike
     */
    private static long number(String name, String value) {
        int start = value.startsWith("-") ? 1 : 0;
        boolean digits = value.length() > start && value.length() - start <= 18;
        for (int i = start; digits && i < value.length(); i++) {
            digits = value.charAt(i) >= '0' && value.charAt(i) <= '9';
        }
        if (!digits) {
            throw failValue(name, value, "not a number of 1 to 18 digits");
        }
        return Long.parseLong(value);
    }

    private static IllegalArgumentException failValue(String name, String value, String why) {
        return new IllegalArgumentException(name + "='" + value + "' is " + why);
    }
}
