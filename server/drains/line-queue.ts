// A drain's waiting lines: bounded, O(1) to add, peek and remove from the front, so enqueueing never costs the
// log store more than a push, and a drain that cannot keep up drops (and counts) instead of growing.

export class LineQueue<T> {
  private items: T[] = [];
  private head = 0;

  constructor(readonly capacity: number) {}

  get size(): number {
    return this.items.length - this.head;
  }

  /** False when full (the caller counts the drop). */
  push(item: T): boolean {
    if (this.size >= this.capacity) return false;
    this.items.push(item);
    return true;
  }

  /** Up to MAX items from the front, left in place until remove(). */
  peek(max: number): T[] {
    return this.items.slice(this.head, this.head + max);
  }

  remove(count: number): void {
    this.head += Math.min(count, this.size);
    // Compact once the consumed front outweighs what is left, so the array never grows past twice the capacity.
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
  }
}
