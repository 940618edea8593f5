package dev.wirespeed.lab;

/** What runs each connection of a thread-per-connection server, by {@code --threads} name. */
public enum Threads implements CliName {
    /** A platform thread (a daemon): a spinning connection owns its CPU. */
    PLATFORM,
    /** A virtual thread: blocking reads park it, and its carrier serves others. */
    VIRTUAL;

    /** {@return a builder of such threads} */
    public Thread.Builder builder() {
        return this == VIRTUAL ? Thread.ofVirtual() : Thread.ofPlatform().daemon();
    }

    @Override
    public String toString() {
        return cliName();
    }
}
