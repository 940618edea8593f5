package dev.wirespeed.lab;

import dev.wirespeed.io.IdleStrategy;

/** The idle strategies the command line offers a busy-polling reader or writer, by {@code --idle} name. */
public enum Idle implements CliName {
    /** Spin, yielding the CPU every 8th empty call: the library's default. */
    SPIN(IdleStrategy.defaultStrategy()),
    /** Spin, never yielding. */
    BUSY_SPIN(IdleStrategy.busySpin()),
    /** Yield after every empty call. */
    YIELD(IdleStrategy.yielding()),
    /** Spin 100 empty calls, yield 10, then park from 1 us, doubling to at most 1 ms. */
    BACKOFF(IdleStrategy.backoff(100, 10, 1_000, 1_000_000));

    private final IdleStrategy strategy;

    Idle(IdleStrategy strategy) {
        this.strategy = strategy;
    }

    /** {@return the library's strategy} */
    public IdleStrategy strategy() {
        return strategy;
    }

    @Override
    public String toString() {
        return cliName();
    }
}
