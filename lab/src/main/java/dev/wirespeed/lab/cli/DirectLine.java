package dev.wirespeed.lab.cli;

import dev.wirespeed.lab.ExitCode;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.util.HashSet;
import java.util.Set;

/**
 * Parses the command lines of {@code server}, {@code client}, {@code echo} and {@code ping} without
 * picocli, for the lab's child JVMs: picocli builds its model of a command from annotations in code
 * compiled for Java 5, which the class-data archive cannot hold and the JIT compiles at every start.
 *
 * <p>It takes only what picocli would read the same way: the command first, then options each as its
 * own token ({@code --port 22222}, never {@code --port=22222}), each at most once, values that do not
 * start with {@code -} or {@code @}, numbers as plain digits, and every required option. Any other line
 * (help, a typo, an option it does not know, a value that does not convert) is picocli's to parse and
 * to explain: {@link #parse} then returns null.
 *
 * <p>Thread safety: stateless.
 */
public final class DirectLine {
    private DirectLine() {
    }

    /**
     * {@return the command of a line this parses, its options set as picocli would set them, or null for
     * a line that picocli must parse}
     *
     * @param args the command line, the command first
     */
    static DirectCommand parse(String... args) {
        if (args.length == 0) {
            return null;
        }
        DirectCommand command = switch (args[0]) {
            case "server" -> new ServerCommand();
            case "client" -> new ClientCommand();
            case "echo" -> new EchoCommand();
            case "ping" -> new PingCommand();
            default -> null;
        };
        if (command == null) {
            return null;
        }
        Set<String> given = new HashSet<>();
        for (int i = 1; i < args.length; i++) {
            String name = args[i];
            if (!given.add(name)) {
                return null;
            }
            try {
                if (command.flag(name)) {
                    // picocli would read a boolean after a flag as the flag's value
                    if (i + 1 < args.length && (args[i + 1].equalsIgnoreCase("true") || args[i + 1].equalsIgnoreCase("false"))) {
                        return null;
                    }
                } else if (i + 1 == args.length || !plain(args[i + 1]) || !command.value(name, args[++i])) {
                    return null;
                }
            } catch (RuntimeException notConverted) {
                return null;
            }
        }
        return given.containsAll(command.required()) ? command : null;
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
