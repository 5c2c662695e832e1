/**
 * The demo help center: the documents `npm start` puts in the Support Assistant's knowledge base
 * (seeds/demo-knowledge.ts), and the tests' questions are asked against them.
 */
export const HELP_CENTER = {
  'refunds-and-returns.md': `# Refunds and returns

## Asking for a refund

You can ask for a refund within 30 days of purchase from Orders > Request refund. Refunds are
paid back to the original payment method within 5 to 7 business days after we approve them.

Digital downloads that were already opened cannot be refunded, except when the file is damaged.

## Returning a physical item

Print the prepaid return label from the order page and drop the parcel at any post office. Items
must be unused and in their original packaging. Return shipping is free for customers in the EU.
`,
  'shipping.md': `# Shipping

## Where we ship

We ship to 40 countries in Europe, North America and Asia. Orders placed before 2 pm (CET) leave
our warehouse the same day.

## Delivery times

Standard delivery takes 3 to 5 business days within the EU and 7 to 10 business days elsewhere.
Express delivery arrives the next business day in Germany, France and the Netherlands.

## Tracking a parcel

The tracking number is in the shipping confirmation email and on the order page.
`,
  'account-and-security.md': `# Account and security

## Resetting your password

Choose "Forgot password" on the sign-in page and enter your email address. The reset link is valid
for one hour. If the email does not arrive, check your spam folder.

## Two-factor authentication

Turn on two-factor authentication under Settings > Security with any authenticator app. Keep the
recovery codes somewhere safe: support cannot switch it off for you.

## Closing your account

Write to privacy@example.com from the address of the account. We delete your data within 30 days.
`,
  'billing.html': `<!doctype html><html><head><title>Billing</title><style>body{font:14px sans-serif}</style></head>
<body><h1>Billing</h1>
<h2>Invoices</h2><p>Invoices are emailed on the first day of each month and can be downloaded as PDF from Billing &gt; Invoices.</p>
<h2>Payment methods</h2><p>We accept credit cards, SEPA direct debit and PayPal. Bank transfers are possible for annual plans.</p>
<h2>Changing your plan</h2><p>Upgrades take effect immediately and are prorated; downgrades apply at the next billing period.</p>
</body></html>
`,
} as const;
