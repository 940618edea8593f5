package dev.wirespeed.lab.cli;

import dev.wirespeed.lab.ExitCode;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Model.CommandSpec;

/**
 * A command whose options are a table ({@link Options}): {@link DirectLine} or picocli
 * ({@link PicocliOptions}) sets its {@link #args}, the same for the same line, and {@link #call} reads
 * them. Every usage error and failure is said one way, {@code wirespeed COMMAND: MESSAGE} on standard
 * error, by {@link #usage} and {@link #fail}.
 */
abstract class DirectCommand implements Callable<Integer> {
    /** Picocli's model of the command when picocli parsed its line, else null. */
    CommandSpec spec;

    /** The command's options, set by the parser before {@link #call}. */
    Args args;

    /** Where the command writes when {@link DirectLine} parsed it, else null (picocli's writers). */
    private PrintWriter out;
    private PrintWriter err;

    /**
     * A command with every option at its default.
     *
     * @param options its table
     */
    DirectCommand(Options options) {
        this.args = Args.of(options);
    }

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
     * Says a usage error.
     *
     * @param message what is wrong, naming the options and values
     * @return {@link ExitCode#USAGE}
     */
    final int usage(String message) {
        return fail(ExitCode.USAGE, message);
    }

    /**
     * Says why the command failed.
     *
     * @param code the exit code ({@link ExitCode})
     * @param message what failed, naming the options and values
     * @return {@code code}
     */
    final int fail(int code, String message) {
        PrintWriter err = err();
        err.println("wirespeed " + args.options().command() + ": " + message);
        err.flush();
        return code;
    }
}
