package dev.wirespeed.lab.env;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A link between this network namespace and a new one: a veth pair, {@value #HOST_ADDRESS} here and
 * {@value #PEER_ADDRESS} in the namespace, each end shaped by a queueing discipline: {@code netem}
 * with a delay and a rate where the kernel has it, else {@code tbf} with the rate alone. The lab's
 * picture of a network between hosts, on one machine: the bytes cross the network stack's queues and
 * the veth driver instead of loopback's shortcut. Needs root and {@code ip}/{@code tc} (iproute2);
 * {@link #open} says why it cannot, and {@link #close()} removes what it made.
 *
 * <p>Thread safety: one thread opens and closes it; its commands may be used from any.
 */
public final class VethLink implements AutoCloseable {
    /** This end's address. */
    public static final String HOST_ADDRESS = "10.213.0.1";
    /** The namespace end's address, where servers listen. */
    public static final String PEER_ADDRESS = "10.213.0.2";
    /** The rate each end is shaped to. */
    public static final String RATE = "10gbit";
    /** The one-way delay each end adds where {@code netem} exists (so a round trip gains twice it). */
    public static final String DELAY = "50us";

    private final String namespace;
    private final String hostDevice;
    private final boolean delayed;

    private VethLink(String namespace, String hostDevice, boolean delayed) {
        this.namespace = namespace;
        this.hostDevice = hostDevice;
        this.delayed = delayed;
    }

    /**
     * Makes the namespace and the link.
     *
     * @param notes told why there is no link, or that it has a rate but no delay
     * @return the link, or empty where this machine cannot make one (not root, no {@code ip} or
     *     {@code tc}, or the kernel refuses a namespace or a veth pair)
     * @throws InterruptedException if interrupted while the commands run
     */
    public static Optional<VethLink> open(Consumer<String> notes) throws InterruptedException {
        if (!isRoot()) {
            notes.accept("many across a link: skipped, making a network namespace needs root");
            return Optional.empty();
        }
        if (!Tools.has("ip") || !Tools.has("tc")) {
            notes.accept("many across a link: skipped, it needs ip and tc (install iproute2)");
            return Optional.empty();
        }
        long id = ProcessHandle.current().pid();
        String namespace = "wirespeed-" + id;
        String host = "wsv" + id % 100_000 + "a";
        String peer = "wsv" + id % 100_000 + "b";
        List<List<String>> steps = List.of(
                List.of("ip", "netns", "add", namespace),
                List.of("ip", "link", "add", host, "type", "veth", "peer", "name", peer),
                List.of("ip", "link", "set", peer, "netns", namespace),
                List.of("ip", "addr", "add", HOST_ADDRESS + "/24", "dev", host),
                List.of("ip", "link", "set", host, "up"),
                List.of("ip", "netns", "exec", namespace, "ip", "addr", "add", PEER_ADDRESS + "/24", "dev", peer),
                List.of("ip", "netns", "exec", namespace, "ip", "link", "set", peer, "up"),
                List.of("ip", "netns", "exec", namespace, "ip", "link", "set", "lo", "up"));
        for (List<String> step : steps) {
            String failed = run(step);
            if (failed != null) {
                remove(namespace, host);
                notes.accept("many across a link: skipped, " + String.join(" ", step) + " failed: " + failed);
                return Optional.empty();
            }
        }
        List<String> inNamespace = List.of("ip", "netns", "exec", namespace);
        boolean delayed = shape(List.of(), host, true) == null && shape(inNamespace, peer, true) == null;
        if (!delayed) {
            String hostTbf = shape(List.of(), host, false);
            String refused = hostTbf != null ? hostTbf : shape(inNamespace, peer, false);
            notes.accept("many across a link: this kernel has no netem queueing discipline, so the link has "
                    + (refused == null ? "a rate (" + RATE + ", tbf) but no added delay"
                            : "neither a rate nor a delay (tbf: " + refused + ")"));
        }
        return Optional.of(new VethLink(namespace, host, delayed));
    }

    /** Puts {@code netem} (delay and rate) or {@code tbf} (rate) on {@code device}; {@return why not, or null} */
    private static String shape(List<String> prefix, String device, boolean netem) throws InterruptedException {
        List<String> command = new ArrayList<>(prefix);
        command.addAll(List.of("tc", "qdisc", "replace", "dev", device, "root"));
        command.addAll(netem ? List.of("netem", "delay", DELAY, "rate", RATE)
                : List.of("tbf", "rate", RATE, "burst", "1mb", "latency", "1ms"));
        return run(command);
    }

    private static boolean isRoot() throws InterruptedException {
        try {
            Process id = new ProcessBuilder("id", "-u").redirectErrorStream(true).start();
            String out = Children.drain(id.getInputStream());
            return id.waitFor(10, TimeUnit.SECONDS) && out.equals("0");
        } catch (IOException e) {
            return false;
        }
    }

    /** Runs a command; {@return its output if it failed, else null} */
    private static String run(List<String> command) throws InterruptedException {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = Children.drain(p.getInputStream());
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return "no answer in 30 s";
            }
            return p.exitValue() == 0 ? null : (out.isEmpty() ? "exit " + p.exitValue() : out);
        } catch (IOException e) {
            return e.getMessage();
        }
    }

    private static void remove(String namespace, String host) throws InterruptedException {
        run(List.of("ip", "link", "del", host)); // takes its peer with it, wherever it is
        run(List.of("ip", "netns", "del", namespace));
    }

    /** {@return whether the link adds a delay ({@code netem}), not only a rate} */
    public boolean delayed() {
        return delayed;
    }

    /** {@return the namespace's name} */
    public String namespace() {
        return namespace;
    }

    /** {@return how tables describe the link} */
    public String describe() {
        return "veth pair into a network namespace, " + RATE + (delayed ? ", " + DELAY + " each way (netem)"
                : " (tbf; no netem here, so no added delay)");
    }

    /**
     * {@return {@code command} run inside the namespace}
     *
     * @param command the command, e.g. one {@link Children#pinned} made
     */
    public List<String> inside(List<String> command) {
        List<String> all = new ArrayList<>(List.of("ip", "netns", "exec", namespace));
        all.addAll(command);
        return all;
    }

    /** Removes the namespace and the link; an interrupt meanwhile is kept for the caller to see. */
    @Override
    public void close() {
        try {
            remove(namespace, hostDevice);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
