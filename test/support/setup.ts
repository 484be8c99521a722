// Loaded before every test file: tsyringe needs the reflect polyfill.
import 'reflect-metadata';
