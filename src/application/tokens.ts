// Injection tokens of the ports. Composition roots (src/bootstrap) register an
// adapter behind each; use cases ask for them with @inject(TOKENS.X).
export const TOKENS = {
  Clock: Symbol('Clock'),
  UnitOfWork: Symbol('UnitOfWork'),
  CredentialStore: Symbol('CredentialStore'),
  RequestAdmission: Symbol('RequestAdmission'),
  ListCounters: Symbol('ListCounters'),
  IdempotencyPurger: Symbol('IdempotencyPurger'),
  SecretCipher: Symbol('SecretCipher'),
  RequestSigner: Symbol('RequestSigner'),
  RandomSource: Symbol('RandomSource'),
  NetworkRegistry: Symbol('NetworkRegistry'),
  NetworkSwitches: Symbol('NetworkSwitches'),
  Signer: Symbol('Signer'),
  AccountKeyExporter: Symbol('AccountKeyExporter'),
  AccountKeyStore: Symbol('AccountKeyStore'),
  AddressDeriver: Symbol('AddressDeriver'),
  /** Balance readers of the networks with a node (ops treasury status). */
  BalanceReaders: Symbol('BalanceReaders'),
  NodeProbes: Symbol('NodeProbes'),
  ReconciliationStore: Symbol('ReconciliationStore'),
  ReconcileOptions: Symbol('ReconcileOptions'),
  /** Whether this deployment has the sandbox faucet (the local sandbox's testnets, outside production). */
  FaucetAvailable: Symbol('FaucetAvailable'),
  /** The shortest cooling-off a new cold address may have (hours). */
  MinColdCoolingOffHours: Symbol('MinColdCoolingOffHours'),
  /** Where owners reach the dashboard (its invitation links), no trailing slash. */
  DashboardUrl: Symbol('DashboardUrl'),
  /** Hashes and checks the dashboard members' passwords. */
  PasswordHasher: Symbol('PasswordHasher'),
  /** The dashboard members' TOTP second factor. */
  Authenticator: Symbol('Authenticator'),
  AddressCodec: Symbol('AddressCodec'),
  LedgerAudit: Symbol('LedgerAudit'),
  Logger: Symbol('Logger'),
  AuthFailureThrottle: Symbol('AuthFailureThrottle'),
  WebhookUrlGuard: Symbol('WebhookUrlGuard'),
  WebhookSender: Symbol('WebhookSender'),
  DeliveryClaims: Symbol('DeliveryClaims'),
  Mailer: Symbol('Mailer'),
  WebhookHousekeeping: Symbol('WebhookHousekeeping'),
  MonitoredAddresses: Symbol('MonitoredAddresses'),
} as const;
