package dev.wirespeed.lab.cli;

import dev.wirespeed.lab.ExitCode;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.util.HashSet;
import java.util.Set;

/**
 * Parses the command lines of the commands the lab starts in child JVMs without picocli: picocli builds
 * its model of a command in code compiled for Java 5, which the class-data archive cannot hold and the JIT
 * compiles at every start. It reads each option by its {@link Opt}, as picocli does
 * ({@link PicocliOptions}), so both make the same {@link Args} of a line.
 *
 * <p>It takes only what picocli would read the same way: the command first, then options each as its
 * own token ({@code --port 22222}, never {@code --port=22222}), each at most once, values that do not
 * start with {@code -} or {@code @}, and every required option. Any other line (help, a typo, an option
 * it does not know, a value that does not read) is picocli's to parse and to explain: {@link #parse}
 * then returns null.
 *
 * <p>Thread safety: stateless.
 */
public final class DirectLine {
    private DirectLine() {
    }

    /**
     * {@return a fresh command of a name, or null if its options are not a table}
     *
     * @param name the command's name, as {@code echo}
     */
    static DirectCommand command(String name) {
        return switch (name) {
            case "server" -> new ServerCommand();
            case "client" -> new ClientCommand();
            case "echo" -> new EchoCommand();
            case "ping" -> new PingCommand();
            case "load" -> new LoadCommand();
            case "handshakes" -> new HandshakesCommand();
            case "ring-write" -> new RingWriteCommand();
            case "ring-read" -> new RingReadCommand();
            case "ring-ping" -> new RingPingCommand();
            case "ring-echo" -> new RingEchoCommand();
            default -> null;
        };
    }

    /**
     * {@return the command of a line this parses, its options set as picocli would set them, or null for
     * a line that picocli must parse}
     *
     * @param args the command line, the command first
     */
    static DirectCommand parse(String... args) {
        DirectCommand command = args.length == 0 ? null : command(args[0]);
        if (command == null) {
            return null;
        }
        Args parsed = parse(command.args.options(), args);
        if (parsed == null) {
            return null;
        }
        command.args = parsed;
        return command;
    }

    /**
     * {@return the options of a line of a command, as picocli would read them, or null for a line that
     * picocli must parse}
     *
     * @param options the command's table
     * @param args the command line, the command first
     */
    static Args parse(Options options, String... args) {
        if (args.length == 0 || !args[0].equals(options.command())) {
            return null;
        }
        Args parsed = Args.of(options);
        Set<Opt<?>> given = new HashSet<>();
        for (int i = 1; i < args.length; i++) {
            Opt<?> opt = options.named(args[i]);
            if (opt == null || !given.add(opt)) {
                return null;
            }
            if (opt.kind() != Opt.Kind.VALUE) {
                // picocli would read a boolean after a flag as the flag's value
                if (i + 1 < args.length && (args[i + 1].equalsIgnoreCase("true") || args[i + 1].equalsIgnoreCase("false"))) {
                    return null;
                }
                parsed = flag(parsed, opt, args[i].equals(opt.name())); // or --no-NAME
            } else if (i + 1 == args.length || !plain(args[i + 1])) {
                return null;
            } else {
                try {
                    parsed = read(parsed, opt, args[++i]);
                } catch (IllegalArgumentException notRead) {
                    return null;
                }
            }
        }
        for (Opt<?> opt : options.all()) {
            if (opt.isRequired() && !given.contains(opt)) {
                return null;
            }
        }
        return parsed;
    }

    /** Sets a flag's value: {@code opt} is a flag, whose values are booleans. */
    @SuppressWarnings("unchecked")
    private static Args flag(Args args, Opt<?> opt, boolean value) {
        return args.with((Opt<Boolean>) opt, value);
    }

    private static <T> Args read(Args args, Opt<T> opt, String value) {
        return args.with(opt, opt.parse(value));
    }

    private static boolean plain(String value) {
        return !value.isEmpty() && !value.startsWith("-") && !value.startsWith("@");
    }

    /**
     * Runs a command line if this parses it, as picocli's {@code execute} would: the command's exit code,
     * or 1 with the stack trace on standard error if it throws.
     *
     * @param args the command line, the command first
     * @return the exit code ({@link ExitCode}), or -1 if picocli must parse the line
     */
    public static int run(String... args) {
        DirectCommand command = parse(args);
        if (command == null) {
            return -1;
        }
        PrintWriter out = writer(System.out);
        PrintWriter err = writer(System.err);
        command.writers(out, err);
        try {
            Integer code = command.call();
            return code == null ? ExitCode.OK : code;
        } catch (Exception e) {
            e.printStackTrace(err);
            return 1;
        } finally {
            out.flush();
            err.flush();
        }
    }

    private static PrintWriter writer(PrintStream stream) {
        return new PrintWriter(new OutputStreamWriter(stream, stream.charset()), true);
    }
}
