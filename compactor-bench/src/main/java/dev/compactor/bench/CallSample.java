package dev.compactor.bench;

import java.util.Arrays;

/**
 * One mode's measurements in a side-by-side benchmark of calls: each call's latency in nanoseconds,
 * the wall time the calls took, the process's CPU time meanwhile and the calls that failed.
 */
class CallSample {
  final String mode;
  long[] nanos = new long[0];
  long wallNanos;
  long cpuNanos;
  long errors;

  CallSample(String mode) {
    this.mode = mode;
  }

  /** Adds the calls of another round. */
  void add(long[] more, long wall, long cpu, long failed) {
    nanos = concat(nanos, more);
    wallNanos += wall;
    cpuNanos += cpu;
    errors += failed;
  }

  double perSecond() {
    return nanos.length / (wallNanos / 1e9);
  }

  /** CPU time of the whole process per call, in ms. */
  double cpuMsPerCall() {
    return cpuNanos / 1e6 / Math.max(1, nanos.length);
  }

  /** The {@code p}-th percentile of the latencies, in ms; NaN without calls. */
  double ms(double p) {
    return percentileMs(nanos, p);
  }

  static double percentileMs(long[] nanos, double p) {
    if (nanos.length == 0) {
      return Double.NaN;
    }
    long[] sorted = nanos.clone();
    Arrays.sort(sorted);
    int i = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, i))] / 1e6;
  }

  static long[] concat(long[] a, long[] b) {
    long[] all = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, all, a.length, b.length);
    return all;
  }

  /** How a table says whether a figure met its aim. */
  static String verdict(boolean met) {
    return met ? "met" : "missed";
  }
}
