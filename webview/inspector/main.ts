/**
 * Entry of the context inspector webview (bundled to dist/webview/inspector.js). Runs in
 * a VS Code webview panel or, served by `trimline inspect --serve`, in a plain browser;
 * it only talks to its host through the protocol (see ../shared/transport.ts).
 */
import {
  provideVSCodeDesignSystem,
  vsCodeButton,
  vsCodeDropdown,
  vsCodeOption,
  vsCodeTextArea,
  vsCodeTextField,
} from '@vscode/webview-ui-toolkit';
import { createTransport } from '../shared/transport';
import { applyTheme, initialTheme } from '../shared/theme';
import { InspectorApp } from './app';

provideVSCodeDesignSystem().register(
  vsCodeButton(),
  vsCodeDropdown(),
  vsCodeOption(),
  vsCodeTextField(),
  vsCodeTextArea(),
);

const transport = createTransport();
// Outside VS Code the page defines the theme variables itself (light, dark or high contrast).
if (transport.kind === 'standalone') applyTheme(initialTheme());
const root = document.getElementById('app') ?? document.body.appendChild(document.createElement('main'));
root.classList.add('app');
new InspectorApp(root, transport).start();
