/**
 * Small programs to copy, each one file with a {@code main}: {@link dev.wirespeed.samples.EchoServer}
 * and {@link dev.wirespeed.samples.EchoClient} exchange frames; {@link dev.wirespeed.samples.BroadcastServer}
 * sends every frame to every other client and drops what a slow one cannot take;
 * {@link dev.wirespeed.samples.FrameDump} prints the frames of a file or a pipe;
 * {@link dev.wirespeed.samples.FrameCopy} copies them, a block at a time;
 * {@link dev.wirespeed.samples.LineCount} counts lines as {@code wc -l} does. The tests run each one.
 */
package dev.wirespeed.samples;
