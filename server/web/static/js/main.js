// Entry point of index.html: connect to the hub and start the page.
import { App } from "./app.js";
import { Connection, websocketURL } from "./protocol.js";
import { Ranked } from "./ranked.js";
import { Friends } from "./friends.js";
import { LobbyChat } from "./lobbychat.js";
import { Mutes } from "./mutes.js";

const storage = (() => {
  try {
    const s = globalThis.localStorage;
    s.setItem("jantaku.probe", "1");
    s.removeItem("jantaku.probe");
    return s;
  } catch {
    return undefined; // private mode without storage: play on, but a reload starts afresh
  }
})();

let app = null;
let lobbyChat = null;
const connection = new Connection({
  url: websocketURL(globalThis.location),
  storage,
  onMessage: (message) => lobbyChat?.handle(message) || app.handle(message),
  onWelcome: (welcome) => app.onWelcome(welcome),
  onStatus: (status, detail) => app.onStatus(status, detail),
});
app = new App({ doc: document, connection, storage });
const mutes = new Mutes({ storage, location: globalThis.location, toast: (text) => app.toast(text) });
app.chat.useMutes(mutes);
lobbyChat = new LobbyChat({ doc: document, conn: connection, toast: (text) => app.toast(text), mutes });
const ranked = new Ranked({ doc: document, app, storage, location: globalThis.location });
app.afterSideInfo = (side, players, length) => ranked.decorateSeats(side, players, length, players?.length);
const friends = new Friends({ doc: document, storage, location: globalThis.location, app, mutes });
mutes.afterChange = () => friends.refresh(); // a mute made from a chat line shows in the card
app.afterSocial = (message) => friends.handle(message); // presence, invitations (docs/social.md)
app.afterRender = () => friends.renderIfInviting();
app.afterWelcome = (welcome) => {
  mutes.onWelcome(welcome.player);
  ranked.onWelcome(welcome.player);
  friends.onWelcome(welcome.player);
  lobbyChat.onWelcome(welcome.player);
};
app.afterMatchEnd = (match, length) => ranked.onMatchEnd(match.id, length, undefined, match.players?.length);
app.afterResult = (box, match) => ranked.decorateResult(box, match.id);
globalThis.jantaku = app; // for debugging and end-to-end tests
globalThis.jantakuRanked = ranked;
globalThis.jantakuFriends = friends;
globalThis.jantakuLobbyChat = lobbyChat;
globalThis.jantakuMutes = mutes;
app.render();
connection.start();
ranked.render(); // signed out until the hub's welcome says who this page plays as
