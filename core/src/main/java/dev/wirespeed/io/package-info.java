/**
 * Buffered reading and writing over any byte channel: {@link dev.wirespeed.io.ChannelReader} (one
 * direct buffer, compact-on-demand refill, zero-copy views), {@link dev.wirespeed.io.ChannelWriter}
 * (large writes, explicit flush) and {@link dev.wirespeed.io.StandardChannels} (stdin and stdout as
 * channels).
 */
package dev.wirespeed.io;
