// Charges for the checkout page.

export interface Charge {
  orderId: string;
  cents: number;
}

const submitted = new Set<string>();

// Called by the checkout page and, after a timeout, by the retry job.
export async function charge(order: Charge, gateway: (c: Charge) => Promise<void>): Promise<void> {
  if (submitted.has(order.orderId)) {
    return;
  }
  await gateway(order);
  submitted.add(order.orderId);
}
