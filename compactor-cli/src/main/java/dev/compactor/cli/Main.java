package dev.compactor.cli;

/** Entry point of the {@code compactor} command. */
public final class Main {
  private Main() {}

  public static void main(String[] args) {
    System.out.println("compactor: not built yet");
  }
}
