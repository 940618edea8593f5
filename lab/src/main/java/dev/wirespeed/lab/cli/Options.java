package dev.wirespeed.lab.cli;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The options of one command, in the order its lines write them: the one table that picocli's model of
 * the command, the children's parser ({@link DirectLine}) and the lines an experiment writes
 * ({@link Args}) are made from.
 *
 * <p>Thread safety: immutable.
 */
public final class Options {
    private final String command;
    private final List<Opt<?>> all;
    private final Map<String, Opt<?>> byName;

    private Options(String command, List<Opt<?>> all) {
        this.command = command;
        this.all = Collections.unmodifiableList(all);
        Map<String, Opt<?>> names = new LinkedHashMap<>();
        for (Opt<?> opt : all) {
            if (names.put(opt.name(), opt) != null) {
                throw new IllegalArgumentException("command=" + command + " has two options named " + opt.name());
            }
            if (opt.kind() == Opt.Kind.NEGATABLE && names.put(negation(opt), opt) != null) {
                throw new IllegalArgumentException("command=" + command + " has two options named " + negation(opt));
            }
        }
        this.byName = names;
    }

    /**
     * {@return the table of a command}
     *
     * @param command the command's name, as {@code echo}
     * @param groups its options: its own, then those it shares with other commands
     * @throws IllegalArgumentException if two options have the same name
     */
    @SafeVarargs
    static Options of(String command, List<? extends Opt<?>>... groups) {
        List<Opt<?>> all = new ArrayList<>();
        for (List<? extends Opt<?>> group : groups) {
            all.addAll(group);
        }
        return new Options(command, all);
    }

    /** {@return the command's name, the first word of its lines} */
    public String command() {
        return command;
    }

    /** {@return every option, in the order its lines write them} */
    public List<Opt<?>> all() {
        return all;
    }

    /** {@return whether {@code opt} is one of these} */
    boolean has(Opt<?> opt) {
        return byName.get(opt.name()) == opt;
    }

    /**
     * {@return the option a token names, {@code --no-NAME} naming a negatable {@code --NAME}; or null}
     *
     * @param token a token of a command line
     */
    Opt<?> named(String token) {
        return byName.get(token);
    }

    /** {@return the name that says false to a negatable option} */
    static String negation(Opt<?> opt) {
        return "--no-" + opt.name().substring(2);
    }

    @Override
    public String toString() {
        return command + " " + all;
    }
}
