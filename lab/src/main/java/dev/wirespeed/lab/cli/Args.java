package dev.wirespeed.lab.cli;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The options of one command line, each a value of its option's type: what an experiment gives a child
 * process ({@link #toArgs()} writes the line) and what both parsers of a line make of it (picocli's and
 * {@link DirectLine}'s, which reads back exactly what {@link #toArgs()} writes). An option at its default
 * is the same as an absent one, and is not written.
 *
 * <pre>{@code
 * List<String> line = Args.of(EchoCommand.OPTIONS)
 *         .with(EchoCommand.TRANSPORT, Transport.TCP).with(ListenOptions.PORT, 0).with(EchoCommand.LOOP)
 *         .toArgs();   // [echo, --transport, tcp, --port, 0, --loop]
 * }</pre>
 *
 * <p>Thread safety: immutable.
 */
public final class Args {
    private final Options options;
    /** The options not at their default, each to a value of its type. */
    private final Map<Opt<?>, Object> values;

    private Args(Options options, Map<Opt<?>, Object> values) {
        this.options = options;
        this.values = values;
    }

    /**
     * {@return a line of {@code options}' command with every option at its default}
     *
     * @param options the command's table
     */
    public static Args of(Options options) {
        return new Args(options, Map.of());
    }

    /** {@return the command's table} */
    public Options options() {
        return options;
    }

    /**
     * {@return an option's value: given, or its default (null if it has none)}
     *
     * @param <T> its type
     * @param opt the option
     * @throws IllegalArgumentException if it is not one of the command's
     */
    public <T> T get(Opt<T> opt) {
        check(opt);
        Object value = values.get(opt);
        return value == null ? opt.defaultValue() : opt.cast(value);
    }

    /**
     * {@return this line with an option's value replaced}; its default, or null, takes it out of the line
     *
     * @param <T> its type
     * @param opt the option
     * @param value the value
     * @throws IllegalArgumentException if it is not one of the command's
     */
    public <T> Args with(Opt<T> opt, T value) {
        check(opt);
        Map<Opt<?>, Object> next = new HashMap<>(values);
        if (value == null || value.equals(opt.defaultValue())) {
            next.remove(opt);
        } else {
            next.put(opt, opt.cast(value));
        }
        return new Args(options, Collections.unmodifiableMap(next));
    }

    /**
     * {@return this line with a flag given}
     *
     * @param flag the flag
     * @throws IllegalArgumentException if it is not one of the command's
     */
    public Args with(Opt<Boolean> flag) {
        return with(flag, true);
    }

    /**
     * {@return the command line: the command's name, then each option not at its default, in the table's order}
     *
     * @throws IllegalStateException if a required option is missing
     */
    public List<String> toArgs() {
        List<String> line = new ArrayList<>();
        line.add(options.command());
        for (Opt<?> opt : options.all()) {
            add(line, opt);
        }
        return line;
    }

    private <T> void add(List<String> line, Opt<T> opt) {
        Object given = values.get(opt);
        if (given == null) {
            if (opt.isRequired()) {
                throw new IllegalStateException(options.command() + " needs " + opt.name() + ": " + this);
            }
            return;
        }
        T value = opt.cast(given);
        switch (opt.kind()) {
            case VALUE -> {
                line.add(opt.name());
                line.add(opt.format(value));
            }
            case FLAG -> line.add(opt.name());
            case NEGATABLE -> line.add(Options.negation(opt)); // given means not the default, true
        }
    }

    private void check(Opt<?> opt) {
        if (!options.has(opt)) {
            throw new IllegalArgumentException(opt.name() + " is not an option of " + options.command());
        }
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Args that && options == that.options && values.equals(that.values);
    }

    @Override
    public int hashCode() {
        return Objects.hash(options.command(), values);
    }

    @Override
    public String toString() {
        StringBuilder text = new StringBuilder(options.command());
        for (Opt<?> opt : options.all()) {
            if (values.containsKey(opt)) {
                text.append(' ').append(opt.name()).append('=').append(values.get(opt));
            }
        }
        return text.toString();
    }
}
