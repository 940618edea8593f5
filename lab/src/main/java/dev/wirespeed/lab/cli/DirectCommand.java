package dev.wirespeed.lab.cli;

import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * A command whose options {@link DirectLine} can set without picocli, as picocli would set them: the
 * commands the lab starts in child JVMs by the hundred. Each option's default is its field's initial
 * value, the same as the {@code defaultValue} its annotation gives picocli (a test holds the two
 * parsers to the same fields). Options it does not take here, such as TLS's, leave the line to picocli.
 */
abstract class DirectCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    /** Where the command writes when {@link DirectLine} parsed it, else null (picocli's writers). */
    private PrintWriter out;
    private PrintWriter err;

    /** A command whose options picocli or {@link DirectLine} sets. */
    DirectCommand() {
    }

    /**
     * Sets a flag option (one that takes no value), as picocli would.
     *
     * @param name the option, as {@code --json}
     * @return whether this command has that flag
     */
    abstract boolean flag(String name);

    /**
     * Sets an option that takes one value, as picocli would.
     *
     * @param name the option, as {@code --port}
     * @param value its value, not starting with {@code -}
     * @return whether this command has that option
     * @throws RuntimeException if the value does not convert (picocli then parses the line, and says why)
     */
    abstract boolean value(String name, String value);

    /** {@return the options the command requires, as picocli's annotations mark them} */
    abstract List<String> required();

    /**
     * Gives the command the writers it writes to, in place of picocli's.
     *
     * @param out its standard output
     * @param err its standard error
     */
    final void writers(PrintWriter out, PrintWriter err) {
        this.out = out;
        this.err = err;
    }

    /** {@return the command's standard output} */
    final PrintWriter out() {
        return out != null ? out : spec.commandLine().getOut();
    }

    /** {@return the command's standard error} */
    final PrintWriter err() {
        return err != null ? err : spec.commandLine().getErr();
    }

    /**
     * {@return a whole number of decimal digits as an int}
     *
     * @param value the value
     * @throws IllegalArgumentException if it is anything else, or too large
     */
    static int digits(String value) {
        return Math.toIntExact(longDigits(value));
    }

    /**
     * {@return a whole number of decimal digits as a long}: the only numbers parsed here, so that no
     * picocli reading of a sign, a radix or white space can differ
     *
     * @param value the value
     * @throws IllegalArgumentException if it is anything else, or too large
     */
    static long longDigits(String value) {
        boolean digits = !value.isEmpty() && value.length() <= 18;
        for (int i = 0; digits && i < value.length(); i++) {
            digits = value.charAt(i) >= '0' && value.charAt(i) <= '9';
        }
        if (!digits) {
            throw new IllegalArgumentException("not a number of 1 to 18 digits: '" + value + "'");
        }
        return Long.parseLong(value);
    }
}
