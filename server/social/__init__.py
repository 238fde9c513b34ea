"""The rules of players together: chat and stamps, friends and blocks, presence, moderation.

Pure data and functions (no clock, I/O or randomness; the time of day is an argument), like
:mod:`server.ranking`: the social service stores what they decide and delivers messages. Social
traffic is not game state: nothing here enters the event log or the engine.

* :mod:`server.social.chat`: who may say what, where and when (the collusion rule: no free text
  from seated players of ranked and tournament tables while a hand is live), stamps, the size cap,
  and who hears a message (spectators never reach the seated players);
* :mod:`server.social.relations`: friend requests, friends, blocks, and what a block hides;
* :mod:`server.social.moderation`: mutes, chat bans and suspensions with their reasons and ends.
"""
